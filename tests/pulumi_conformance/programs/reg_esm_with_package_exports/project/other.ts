// The program passes by being found and run as the entry point: it needs no resources.
