# kind: wrong
# about: copies the worked example's fleet rate at a batch of 64
# expect fleet_rate: wrong /worked example/

fleet_rate = 3993
