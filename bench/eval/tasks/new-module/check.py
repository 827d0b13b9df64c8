from stack import Stack

s = Stack()
assert len(s) == 0
s.push(1)
s.push(2)
assert s.peek() == 2 and len(s) == 2
assert s.pop() == 2 and s.pop() == 1 and len(s) == 0
try:
    s.pop()
    raise SystemExit("pop of an empty stack did not raise IndexError")
except IndexError:
    pass
