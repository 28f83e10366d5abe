"""The generated SDK under the Python SDK's mocks: a resource gets the mocked id."""

import unittest

import pulumi
import pulumi.runtime


class Mocks(pulumi.runtime.Mocks):
    def call(self, args):
        raise Exception(f"unexpected call of {args.token}")

    def new_resource(self, args):
        return [f"{args.name}_id", args.inputs]


class TestGeneratedPackage(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        pulumi.runtime.set_mocks(Mocks(), project="project", stack="stack", preview=False)
        await pulumi.runtime.settings._load_monitor_feature_support()

    async def test_a_random_gets_the_mocked_id(self):
        import pulumi_pkg as pkg

        random = pkg.Random("random", length=8)
        self.assertEqual(await random.id.future(), "random_id")
