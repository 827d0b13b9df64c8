# Writes a tree of 80 modules; compute_checksum is defined in one and used in many.
import os
import random

rng = random.Random(26)
areas = ["api", "cli", "storage", "net", "auth", "jobs", "util", "render"]
subs = ["core", "io", "blocks", "models", "handlers"]
words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta", "lambda"]
for i in range(80):
    area, sub = rng.choice(areas), rng.choice(subs)
    name = f"{rng.choice(words)}_{i}.py"
    path = os.path.join("pkg", area, sub, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    body = [f'"""Module {i} of the {area} area."""', "", "from pkg.storage.blocks.integrity import compute_checksum", ""]
    for j in range(rng.randint(2, 5)):
        body += [f"def {rng.choice(words)}_{i}_{j}(data):", f"    return compute_checksum(data) + {j}", ""]
    with open(path, "w") as f:
        f.write("\n".join(body))
os.makedirs("pkg/storage/blocks", exist_ok=True)
with open("pkg/storage/blocks/integrity.py", "w") as f:
    f.write('"""Checksums of stored blocks."""\n\nimport zlib\n\n\ndef compute_checksum(data):\n    return zlib.crc32(bytes(data))\n')
with open("pkg/util/core/checksum_notes.md" if os.path.isdir("pkg/util/core") else "NOTES.md", "w") as f:
    f.write("compute_checksum used to live in pkg/util/hashing.py; it moved.\n")
