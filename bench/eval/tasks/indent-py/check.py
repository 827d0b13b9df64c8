from shipping import shipping_cost

cases = [((20, "domestic"), 5), ((99, "domestic"), 5), ((100, "domestic"), 0), ((700, "domestic"), 0),
         ((150, "international"), 20), ((600, "international"), 10), ((20, "international"), 20)]
for args, want in cases:
    got = shipping_cost(*args)
    assert got == want, f"shipping_cost{args} = {got}, want {want}"
