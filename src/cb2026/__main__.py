# Generated from the book by tools/literate, from chapters stage-01-board.
# Do not edit: change the chapters and run `make tangle`.

"""Run the command loop: `python -m cb2026` does what the `cb2026`
console command does."""


if __name__ == "__main__":
    from cb2026.cli import main

    main()
