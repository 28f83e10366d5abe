// Not JavaScript: the program fails to load with a SyntaxError.
let let = 1;
