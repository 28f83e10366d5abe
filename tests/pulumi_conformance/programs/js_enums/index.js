"use strict";
// Enum-like constants (string values) as a dynamic resource's inputs, read back as outputs.
const pulumi = require("@pulumi/pulumi");

const Farm = Object.freeze({
    PulumiPlantersInc: "Pulumi Planters Inc.",
    PlantsRUs: "Plants'R'Us",
});
const RubberTreeVariety = Object.freeze({ Burgundy: "Burgundy", Ruby: "Ruby", Tineke: "Tineke" });

const plants = {
    async create(inputs) {
        return { id: "0", outs: inputs };
    },
};

class RubberTree extends pulumi.dynamic.Resource {
    constructor(name, args) {
        super(plants, name, { farm: args.farm, type: args.type });
    }
}

const tree = new RubberTree("myTree", {
    type: RubberTreeVariety.Burgundy,
    farm: Farm.PulumiPlantersInc,
});

exports.myTreeType = tree.type;
exports.myTreeFarmChanged = tree.farm.apply((farm) => farm + "foo");
exports.mySentence = pulumi
    .all([tree.type, tree.farm])
    .apply(([type, farm]) => `My ${type} Rubber tree is from ${farm}`);
