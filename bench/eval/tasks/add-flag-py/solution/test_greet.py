import unittest

from greet import greeting


class GreetTest(unittest.TestCase):
    def test_greeting(self):
        self.assertEqual(greeting("Bob"), "Hello, Bob!")

    def test_shout(self):
        self.assertEqual(greeting("Bob", shout=True), "HELLO, BOB!")


if __name__ == "__main__":
    unittest.main()
