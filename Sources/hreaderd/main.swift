print("hreaderd")
