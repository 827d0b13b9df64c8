import unittest

from inventory.items import add_item


class ItemsTest(unittest.TestCase):
    def test_add_item(self):
        items = add_item([], "pen", 2, 3)
        self.assertEqual(items, [{"name": "pen", "price": 2, "quantity": 3}])


if __name__ == "__main__":
    unittest.main()
