import math


class Rectangle:
    def __init__(self, width, height):
        self.width = width
        self.height = height

    def describe(self):
        return f"{self.width}x{self.height} rectangle"

    def area(self):
        return self.width * self.height

    def is_square(self):
        return self.width == self.height


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return math.pi * self.radius**2
