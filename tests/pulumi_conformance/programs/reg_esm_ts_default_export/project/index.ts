export default async function () {
    return { helloWorld: 123 };
}
