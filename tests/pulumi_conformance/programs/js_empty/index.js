"use strict";
// A program that registers nothing but its stack.
