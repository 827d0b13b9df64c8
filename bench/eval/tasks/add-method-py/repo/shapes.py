import math


class Rectangle:
    def __init__(self, width, height):
        self.width = width
        self.height = height

    def describe(self):
        return f"{self.width}x{self.height} rectangle"


class Circle:
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return math.pi * self.radius**2
