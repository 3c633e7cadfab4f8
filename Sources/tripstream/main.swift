print("tripstream")
