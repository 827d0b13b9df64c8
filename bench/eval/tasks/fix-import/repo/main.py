from app.helpers import format_price

for price in (3.5, 12):
    print(format_price(price))
