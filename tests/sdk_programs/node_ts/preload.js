// Loaded through `nodeargs` before the program: shows node got the project's arguments.
process.env.STEPDECK_PRELOADED = "yes";
