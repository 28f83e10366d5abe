"""Reports what the engine sent about each random resource as an advisory violation whose
message is JSON: its name, options, provider and (secret) inputs, and in the stack policy each
resource's parent and dependencies."""

import json

from pulumi_policy import PolicyPack, ResourceValidationPolicy, StackValidationPolicy


def seen(args, report_violation):
    if not args.resource_type.startswith("random:"):
        return
    opts = args.opts
    timeouts = opts.custom_timeouts
    report_violation(
        json.dumps(
            {
                "name": args.name,
                "props": dict(args.props),
                "keeper_lengths": {k: len(v) for k, v in (args.props.get("keepers") or {}).items()},
                "protect": opts.protect,
                "ignore_changes": list(opts.ignore_changes),
                "parent": opts.parent,
                "timeouts": [timeouts.create_seconds, timeouts.update_seconds],
                "provider": args.provider.resource_type if args.provider else None,
            },
            sort_keys=True,
            default=dict,
        )
    )


def graph(args, report_violation):
    out = {}
    for r in args.resources:
        if r.resource_type.startswith("random:"):
            out[r.name] = {
                "parent": r.parent.name if r.parent else None,
                "dependencies": sorted(d.name for d in r.dependencies),
            }
    report_violation(json.dumps(out, sort_keys=True))


PolicyPack(
    name="inspect",
    policies=[
        ResourceValidationPolicy(name="seen", description="seen", validate=seen),
        StackValidationPolicy(name="graph", description="graph", validate=graph),
    ],
)
