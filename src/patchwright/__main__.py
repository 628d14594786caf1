from patchwright.cli import main

main()
