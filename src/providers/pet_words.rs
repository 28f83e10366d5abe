//! Word lists for `RandomPet` names (`adverb-adjective-animal`), written for stepdeck.

pub(crate) const ADVERBS: &[&str] = &[
    "boldly",
    "briskly",
    "calmly",
    "cheerfully",
    "deftly",
    "eagerly",
    "evenly",
    "fairly",
    "gently",
    "gladly",
    "happily",
    "keenly",
    "kindly",
    "lightly",
    "loudly",
    "merrily",
    "neatly",
    "nimbly",
    "openly",
    "proudly",
    "quickly",
    "quietly",
    "rapidly",
    "safely",
    "smoothly",
    "softly",
    "steadily",
    "swiftly",
    "warmly",
    "wisely",
];

pub(crate) const ADJECTIVES: &[&str] = &[
    "able", "amber", "ancient", "brave", "bright", "busy", "clever", "cosmic", "crisp", "curious",
    "daring", "dusty", "eager", "early", "fancy", "fluffy", "frank", "gentle", "giant", "golden",
    "happy", "honest", "humble", "icy", "jolly", "keen", "lively", "lucky", "mellow", "merry",
    "mighty", "modest", "noble", "patient", "polite", "proud", "quick", "quiet", "rapid", "rustic",
    "shiny", "silent", "sleepy", "smooth", "steady", "sunny", "tidy", "upbeat", "vivid", "witty",
];

pub(crate) const ANIMALS: &[&str] = &[
    "badger", "beaver", "bison", "camel", "cheetah", "cobra", "condor", "coyote", "crane", "dingo",
    "dolphin", "donkey", "eagle", "falcon", "ferret", "finch", "fox", "gazelle", "gecko", "gibbon",
    "heron", "hippo", "ibex", "jackal", "koala", "lemur", "lion", "lynx", "marmot", "mole",
    "moose", "newt", "ocelot", "orca", "otter", "owl", "panda", "pelican", "puffin", "quail",
    "rabbit", "raven", "salmon", "seal", "sloth", "tapir", "tiger", "walrus", "wombat", "yak",
    "zebra",
];
