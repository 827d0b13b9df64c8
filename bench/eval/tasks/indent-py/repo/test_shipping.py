import unittest

from shipping import shipping_cost


class ShippingTest(unittest.TestCase):
    def test_domestic_small(self):
        self.assertEqual(shipping_cost(20, "domestic"), 5)

    def test_international_big(self):
        self.assertEqual(shipping_cost(600, "international"), 10)

    def test_international_medium(self):
        self.assertEqual(shipping_cost(150, "international"), 20)


if __name__ == "__main__":
    unittest.main()
