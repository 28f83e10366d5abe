"""stepdeck's Python language host: runs a Pulumi program against stepdeck's resource monitor.

The PyPI `pulumi` package has no program runner of its own, so stepdeck embeds this script and
starts it with the same flags Pulumi's language host passes to its exec script.
"""

import argparse
import asyncio
import logging
import os
import runpy
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor

# Exit codes stepdeck understands: 32 = the error was already reported through Engine.Log.
EXIT_REPORTED = 32
EXIT_NO_SDK = 97

try:
    import grpc
    import pulumi
    import pulumi.runtime
    from pulumi.runtime.proto import engine_pb2_grpc, resource_pb2_grpc
except ImportError as missing:
    sys.stderr.write(
        "stepdeck: the Pulumi Python SDK is not importable by %s (%s)\n" % (sys.executable, missing)
    )
    sys.exit(EXIT_NO_SDK)


# The SDK's own limit on received messages (400 MiB).
MAX_MESSAGE_SIZE = 400 * 1024 * 1024


def stub(make, target):
    """A client stub on a channel of our own. stepdeck serves the monitor and the engine on a
    private Unix socket, and gRPC's C core would send the socket path as the HTTP/2 :authority,
    which is not a valid authority and is refused; the SDK's own channels cannot be told
    otherwise, so the launcher hands the SDK ready stubs that say `localhost`."""
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_SIZE),
        ("grpc.default_authority", "localhost"),
    ]
    return make(grpc.insecure_channel(target, options=options))


def parse_args():
    p = argparse.ArgumentParser(prog="stepdeck-python-launcher")
    for flag in ("monitor", "engine", "project", "stack", "organization", "root_directory", "pwd"):
        p.add_argument("--" + flag, default="")
    p.add_argument("--dry_run", default="false")
    p.add_argument("--parallel", type=int, default=1)
    p.add_argument("program")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p.parse_args()


def refused_by_engine(exc):
    """True when the error comes from the engine refusing a registration (gRPC UNAVAILABLE):
    the engine has already reported why, so the program stops without a report of its own."""
    import grpc

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        code = getattr(exc, "code", None)
        if callable(code):
            try:
                if code() == grpc.StatusCode.UNAVAILABLE:
                    return True
            except Exception:
                pass
        exc = exc.__cause__ or exc.__context__
    return False


def program_module(program):
    """The program's module path without its extension: a directory runs its `__main__`."""
    path = os.path.abspath(program)
    if os.path.isdir(path):
        path = os.path.join(path, "__main__")
    return os.path.splitext(path)[0]


def user_traceback(exc, program):
    """The exception's traceback from the program's first own frame down, as Pulumi's exec
    script reports it: the frames of this launcher and the SDK above it say nothing to the
    user. Left whole when no frame is the program's."""
    module = program_module(program)
    tb = exc.__traceback__
    while tb is not None:
        if os.path.splitext(os.path.abspath(tb.tb_frame.f_code.co_filename))[0] == module:
            break
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))


class MissingMain(Exception):
    """A program directory without `__main__.py`: said in Pulumi's words, with no traceback."""

    def __init__(self, directory):
        super().__init__(f"unable to find main python program `__main__.py` in `{directory}`")


def main():
    opts = parse_args()
    pulumi.runtime.set_all_config(
        pulumi.runtime.get_config_env(), pulumi.runtime.get_config_secret_keys_env()
    )
    pulumi.runtime.configure(
        pulumi.runtime.Settings(
            monitor=stub(resource_pb2_grpc.ResourceMonitorStub, opts.monitor),
            engine=stub(engine_pb2_grpc.EngineStub, opts.engine),
            project=opts.project,
            stack=opts.stack,
            parallel=opts.parallel,
            dry_run=opts.dry_run == "true",
            organization=opts.organization or None,
            root_directory=opts.root_directory or None,
        )
    )
    if opts.pwd:
        os.chdir(opts.pwd)
    program = opts.program
    sys.argv = [program] + opts.args
    sys.path.insert(0, os.path.abspath(program if os.path.isdir(program) else os.path.dirname(program) or "."))

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    loop.set_default_executor(ThreadPoolExecutor(max_workers=max(opts.parallel, 1) * 4))
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)

    def run_program():
        if os.path.isdir(program) and not os.path.isfile(os.path.join(program, "__main__.py")):
            raise MissingMain(os.path.abspath(program))
        return runpy.run_path(program, run_name="__main__")

    try:
        loop.run_until_complete(pulumi.runtime.run_in_stack(run_program))
    except Exception as exc:  # everything the program raised is reported, then we bail
        if refused_by_engine(exc):
            sys.exit(EXIT_REPORTED)
        if isinstance(exc, (pulumi.RunError, MissingMain)):
            message = str(exc)
        else:
            message = "Program failed with an unhandled exception:\n" + user_traceback(
                exc, program
            )
        try:
            pulumi.log.error(message)
        except Exception:
            sys.stderr.write(message + "\n")
        sys.exit(EXIT_REPORTED)
    finally:
        loop.close()


if __name__ == "__main__":
    main()
