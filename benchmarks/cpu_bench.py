"""CPU benchmark against peers (see ``genqsim.cli.bench``; the same as ``genqsim bench``)."""

from genqsim.cli.bench import main

if __name__ == "__main__":
    main()
