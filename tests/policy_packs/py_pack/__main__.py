"""A pack of each kind the tests drive: mandatory and advisory resource policies, a
remediation, a stack policy and one configured through a schema, written with pulumi_policy
from PyPI."""

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    PolicyPack,
    ResourceValidationPolicy,
    StackValidationPolicy,
)


def supported_engine(args, report_violation):
    if args.resource_type == "sim:index:Database" and args.props.get("engine") == "pg15":
        report_violation("pg15 is end of life")


def watched(args, report_violation):
    if args.resource_type == "sim:index:Network":
        report_violation("networks are watched")


def private_range(args):
    if args.resource_type == "sim:index:Network" and args.props.get("cidr") != "10.1.0.0/16":
        props = dict(args.props)
        props["cidr"] = "10.1.0.0/16"
        return props
    return None


def max_databases(args, report_violation):
    limit = args.get_config()["maxCount"]
    found = [r for r in args.resources if r.resource_type == "sim:index:Database"]
    if len(found) > limit:
        report_violation(f"{len(found)} databases, at most {limit}")


def count(args, report_violation):
    report_violation(f"{len(args.resources)} resources")


PolicyPack(
    name="py-pack",
    policies=[
        ResourceValidationPolicy(
            name="no-pg15",
            description="Databases run a supported engine",
            validate=supported_engine,
            enforcement_level=EnforcementLevel.MANDATORY,
        ),
        ResourceValidationPolicy(
            name="watched",
            description="Networks are watched",
            validate=watched,
        ),
        ResourceValidationPolicy(
            name="private-range",
            description="Networks use 10.1.0.0/16",
            remediate=private_range,
            enforcement_level=EnforcementLevel.REMEDIATE,
        ),
        StackValidationPolicy(
            name="max-dbs",
            description="Databases are counted",
            validate=max_databases,
            config_schema=PolicyConfigSchema(
                properties={"maxCount": {"type": "integer", "default": 5}},
            ),
        ),
        StackValidationPolicy(
            name="count",
            description="Counts the stack's resources",
            validate=count,
        ),
    ],
)
