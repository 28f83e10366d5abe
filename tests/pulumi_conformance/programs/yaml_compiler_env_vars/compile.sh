# Prints the program: this project's file and outputs naming what the compiler was given.
cat Pulumi.yaml
printf 'outputs:\n'
printf '  stack: "%s"\n' "$PULUMI_STACK"
printf '  project: "%s"\n' "$PULUMI_PROJECT"
printf '  organization: "%s"\n' "$PULUMI_ORGANIZATION"
printf '  config: %s\n' "$PULUMI_CONFIG"
printf '  rootIsHere: %s\n' "$([ "$PULUMI_ROOT_DIRECTORY" = "$(pwd)" ] && echo true || echo false)"
