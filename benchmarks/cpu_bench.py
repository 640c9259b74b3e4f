"""CPU benchmark against peers (see ``genqsim.bench``; the same as ``genqsim bench``)."""

from genqsim.bench import main

if __name__ == "__main__":
    main()
