import random

rng = random.Random(3)
with open("sales.csv", "w") as f:
    f.write("id,region,product,amount\n")
    for i in range(1, 401):
        f.write(f"{i},{rng.choice(['north', 'south', 'east', 'west'])},{rng.choice(['pen', 'ink', 'pad'])},{rng.randint(1, 500)}\n")
