from pulumi_policy import (
    EnforcementLevel,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
)


def accept_everything(args: ResourceValidationArgs, report_violation: ReportViolation):
    """Reports nothing, whatever the resource."""


PolicyPack(
    name="aws-python",
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=[
        ResourceValidationPolicy(
            name="noop_policy",
            description="does nothing!",
            validate=accept_everything,
        ),
    ],
)
