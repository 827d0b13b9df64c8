import unittest

from shop.orders import order_owner
from shop.report import owners
from shop.users import get_user


class ShopTest(unittest.TestCase):
    def test_get_user(self):
        self.assertEqual(get_user(1), "ada")

    def test_order_owner(self):
        self.assertEqual(order_owner({"user_id": 2}), "grace")

    def test_owners(self):
        self.assertEqual(owners([{"user_id": 2}, {"user_id": 1}]), ["ada", "grace"])


if __name__ == "__main__":
    unittest.main()
