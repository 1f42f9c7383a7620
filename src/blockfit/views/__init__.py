"""Results on the terminal, a module per result kind (as report/ is for HTML): each takes the result and the
console to print on; `cli/` parses, calls the library, and hands the result to its view."""
