from blockfit.cli import main

main()
