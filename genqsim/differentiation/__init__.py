"""Derivatives of circuits: gradients, Jacobians and Hessians (:mod:`.gradients`, forward
mode, dual numbers or the adjoint program of :mod:`.adjoint`) and linear and second-order
propagation of parameter uncertainties (:mod:`.propagation`)."""
