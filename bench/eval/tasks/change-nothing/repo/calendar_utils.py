def is_leap_year(year):
    """True for Gregorian leap years: every 4th year, except centuries not divisible by 400."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_year(year):
    return 366 if is_leap_year(year) else 365
