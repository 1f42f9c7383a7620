from blockfit.launch import main

main()
