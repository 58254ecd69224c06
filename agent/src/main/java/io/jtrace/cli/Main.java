package io.jtrace.cli;

import io.jtrace.cli.attach.ControlCommand;
import io.jtrace.cli.attach.ListCommand;
import io.jtrace.jfr.cli.JfrCommands;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * {@code java -jar jtrace.jar}: the command line. It only dispatches; each command lives in its own
 * class. Exits non-zero for anything it does not know.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
            out.print(usage());
            return 0;
        }
        switch (args[0]) {
            case "start", "stop", "flush", "dump", "status" -> {
                return ControlCommand.run(args, out, err);
            }
            case "list" -> {
                return ListCommand.run(out, err);
            }
            case "convert" -> {
                return JfrCommands.convert(Arrays.copyOfRange(args, 1, args.length), out, err);
            }
            case "merge" -> {
                return JfrCommands.merge(Arrays.copyOfRange(args, 1, args.length), out, err);
            }
            default -> {
                // Not a command: reported below.
            }
        }
        err.println("jtrace: unknown command '" + args[0] + "'");
        err.print(usage());
        return 2;
    }

    static String usage() {
        return String.join(System.lineSeparator(),
                "jtrace - Perfetto tracing for the JVM",
                "",
                "Trace a JVM from start-up:",
                "  java -javaagent:jtrace.jar=start,duration=30s,file=trace.pftrace -jar app.jar",
                "",
                "Trace a running JVM:",
                "  jcmd <pid> JVMTI.agent_load /path/to/jtrace.jar '\"start,duration=30s,file=trace.pftrace\"'",
                "",
                "Agent options (comma-separated): start, name=<session>, ring, duration=<n>(ms|s|m|h),",
                "  file=<path>, buffer=<n>(k|m|g), sources=track_event+jvm.gc, categories=<glob>+<glob>,",
                "  config=<text TraceConfig file>, log=off|error|warn|info|debug",
                "jcmd commands: start,<options> | stop[,name=<session>] | flush[,name=<session>] |",
                "  dump[,name=<session>],file=<path> | status",
                "",
                ControlCommand.usage(),
                "Open the trace at https://ui.perfetto.dev",
                "",
                JfrCommands.usage());
    }
}
