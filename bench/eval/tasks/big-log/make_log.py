# A 600 KB log (far more than a small model's window) with one FATAL line near the end.
import random

rng = random.Random(7)
levels = ["INFO"] * 8 + ["WARN", "ERROR"]
paths = ["/api/users", "/api/orders", "/health", "/static/app.js", "/api/login"]
with open("server.log", "w") as f:
    for i in range(7000):
        if i == 5813:
            f.write("2026-11-26T10:41:07Z FATAL req=r-7f3a91c2 path=/api/orders msg=database connection pool exhausted\n")
            continue
        level = rng.choice(levels)
        f.write(
            f"2026-11-26T{8 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z {level} req=r-{rng.getrandbits(32):08x} "
            f"path={rng.choice(paths)} msg=handled in {rng.randint(1, 900)} ms\n"
        )
