import unittest

from roman import to_roman


class RomanTest(unittest.TestCase):
    def test_small(self):
        self.assertEqual(to_roman(1), "I")
        self.assertEqual(to_roman(4), "IV")
        self.assertEqual(to_roman(9), "IX")

    def test_large(self):
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(2026), "MMXXVI")


if __name__ == "__main__":
    unittest.main()
