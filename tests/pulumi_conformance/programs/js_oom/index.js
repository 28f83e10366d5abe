// Keeps every array it makes, so the heap fills up and Node.js dies of it.
const v8 = require("node:v8");

const kept = [];
for (let i = 0; i < 1_000_000; i++) {
    if (i % 100 === 0) {
        const heap = v8.getHeapStatistics();
        console.log(`heap used ${heap.used_heap_size / 1048576} MB of ${heap.heap_size_limit / 1048576} MB`);
    }
    kept.push(new Array(1_000_000).fill("a"));
}
