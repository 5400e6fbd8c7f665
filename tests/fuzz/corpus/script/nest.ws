trace f { if a { if b { print (((1))); } } else if c { } else { ; } }
