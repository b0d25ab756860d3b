"""`python -m quotactl` runs the CLI."""

from quotactl.cli.app import main

if __name__ == "__main__":
    main()
