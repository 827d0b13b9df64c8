import unittest

from greet import greeting


class GreetTest(unittest.TestCase):
    def test_greeting(self):
        self.assertEqual(greeting("Bob"), "Hello, Bob!")


if __name__ == "__main__":
    unittest.main()
