from app.money import format_price

for price in (3.5, 12):
    print(format_price(price))
