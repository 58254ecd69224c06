package io.jtrace.cli.attach;

import static io.jtrace.cli.attach.CommandLineValues.value;

import io.jtrace.agent.config.TextTraceConfig;
import io.jtrace.agent.control.SessionInfos;
import io.jtrace.jmx.SessionInfo;
import io.jtrace.jmx.TracingMXBean;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code jtrace start|stop|flush|dump|status --pid <pid> ...}: controls the tracing sessions of a
 * running JVM through the Attach API and jtrace's MBean in it (start loads the agent when it is not
 * there; the others report that it is not), and prints what the agent answered. Exit codes: {@link ExitCodes}.
 */
public final class ControlCommand {
    private final String verb;
    private Long pid;
    private String name = "";
    private String file;
    private Path config;
    /** The --config file's text, read while parsing: a file that cannot be read fails before any attach. */
    private String configText;
    /** Why the agent would refuse the --config file, found before any JVM is touched; null if it parses. */
    private String configRefusal;
    private String options = "";

    private ControlCommand(String verb) {
        this.verb = verb;
    }

    public static String usage() {
        return String.join(System.lineSeparator(),
                "Control a running JVM (start loads the agent into it when needed):",
                "  jtrace start  --pid <pid> [options]            options as the agent's: duration=30s,file=x.pftrace,ring,...",
                "  jtrace start  --pid <pid> --config <file.pbtxt> [--out <file>]   Perfetto text TraceConfig",
                "  jtrace stop   --pid <pid> [--name <session>]   stop; prints the file and its bytes",
                "  jtrace flush  --pid <pid> [--name <session>]",
                "  jtrace dump   --pid <pid> [--name <session>] --out <file>   write a ring session's trace so far",
                "  jtrace status --pid <pid>                      sessions, buffers, files, losses",
                "  jtrace list                                    local JVMs and whether jtrace is loaded",
                "Exit codes: 0 done, 1 the agent refused or failed, 2 bad command line, 3 JVM not reachable",
                "");
    }

    /** Runs {@code args} (the verb first); returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        ControlCommand command = new ControlCommand(args[0]);
        try {
            command.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("jtrace " + args[0] + ": " + e.getMessage());
            return ExitCodes.USAGE;
        }
        if (command.configRefusal != null) {
            err.println("jtrace " + command.verb + ": " + command.configRefusal);
            return ExitCodes.COMMAND_FAILED;
        }
        // Only start loads the agent: a command that asks about sessions must not add a tracer (its
        // threads, its SMB, its MBean), nor a JMX agent, to a JVM that had none, just to answer that
        // there are none.
        boolean start = command.verb.equals("start");
        try (TargetJvm target = start ? TargetJvm.attach(command.pid) : TargetJvm.attachIfLoaded(command.pid)) {
            if (target == null) {
                return command.notLoaded(out, err);
            }
            for (String line : command.execute(start ? target.tracing() : target.loadedTracing())) {
                out.println(line);
            }
            return ExitCodes.OK;
        } catch (UnreachableException e) {
            err.println("jtrace " + command.verb + ": " + e.getMessage());
            return ExitCodes.NOT_REACHABLE;
        } catch (IllegalArgumentException | IllegalStateException e) {
            err.println("jtrace " + command.verb + ": " + e.getMessage());
            return ExitCodes.COMMAND_FAILED;
        } catch (RuntimeException e) {
            // A JMX transport failure (the JVM exited meanwhile) surfaces as an undeclared exception.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            err.println("jtrace " + command.verb + ": lost pid " + command.pid + ": " + cause);
            return ExitCodes.NOT_REACHABLE;
        }
    }

    /** The answer when jtrace is not in the target: a status, or a failed command. */
    private int notLoaded(PrintStream out, PrintStream err) {
        String hint = "jtrace start --pid " + pid + " loads it";
        if (verb.equals("status")) {
            out.println("jtrace is not loaded in pid " + pid + ": no tracing sessions (" + hint + ")");
            return ExitCodes.OK;
        }
        err.println("jtrace " + verb + ": jtrace is not loaded in pid " + pid + ", so it has no session to " + verb
                + " (" + hint + ")");
        return ExitCodes.COMMAND_FAILED;
    }

    private void parse(String[] args) {
        List<String> positional = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--pid", "-p" -> pid = CommandLineValues.pid(value(args, ++i, a));
                case "--name", "-n" -> name = value(args, ++i, a);
                case "--out", "-o", "--file" -> file = Path.of(value(args, ++i, a)).toAbsolutePath().toString();
                case "--config", "-c" -> config = Path.of(value(args, ++i, a));
                default -> {
                    if (a.startsWith("-")) {
                        throw new IllegalArgumentException("unknown option '" + a + "'");
                    }
                    positional.add(a);
                }
            }
        }
        if (pid == null) {
            throw new IllegalArgumentException("which JVM? give --pid <pid> (jtrace list shows them)");
        }
        if (!verb.equals("start") && (config != null || !positional.isEmpty())) {
            throw new IllegalArgumentException("unexpected arguments " + positional
                    + (config != null ? " --config" : ""));
        }
        if (verb.equals("start")) {
            if (positional.size() > 1) {
                throw new IllegalArgumentException("give the options as one comma-separated argument, got " + positional);
            }
            options = positional.isEmpty() ? "" : absoluteFiles(positional.get(0));
            if (config != null && !options.isEmpty()) {
                throw new IllegalArgumentException("give either --config or options, not both");
            }
            if (config != null) {
                try {
                    configText = TextTraceConfig.readText(config);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--config: " + e.getMessage());
                }
                try {
                    // Here, where the file's name is known: the agent would refuse it the same way, without
                    // the name. A refusal of the config (exit code 1), not a mistake on the command line.
                    TextTraceConfig.parse(configText);
                } catch (IllegalArgumentException e) {
                    configRefusal = "--config " + config + ": " + e.getMessage();
                }
            }
        }
        if (verb.equals("dump") && file == null) {
            throw new IllegalArgumentException("dump needs --out <file>");
        }
        if (verb.equals("status") && !name.isEmpty()) {
            throw new IllegalArgumentException("status shows every session; it takes no --name");
        }
    }

    private List<String> execute(TracingMXBean tracing) {
        List<String> lines = new ArrayList<>();
        switch (verb) {
            case "start" -> {
                SessionInfo s = config != null
                        ? tracing.startWithConfig(configText, file == null ? "" : file)
                        : tracing.start(file == null ? options : withFile(options, file));
                lines.add("started " + SessionInfos.line(s));
            }
            case "stop" -> lines.add("stopped " + SessionInfos.line(tracing.stop(name)));
            case "flush" -> lines.add("flushed " + SessionInfos.line(tracing.flush(name)));
            case "dump" -> lines.add(SessionInfos.line(tracing.dump(name, file)));
            case "status" -> {
                List<SessionInfo> sessions = tracing.getSessions();
                if (sessions.isEmpty()) {
                    lines.add("no tracing sessions");
                }
                for (SessionInfo s : sessions) {
                    lines.add(SessionInfos.line(s));
                }
            }
            default -> throw new IllegalArgumentException("unknown command '" + verb + "'");
        }
        return lines;
    }

    /** The target's working directory is not ours: every file= and config= the user gives is made absolute here. */
    private static String absoluteFiles(String options) {
        List<String> items = new ArrayList<>();
        for (String item : options.split(",")) {
            String t = item.trim();
            if (t.startsWith("file=") || t.startsWith("config=")) {
                int eq = t.indexOf('=');
                t = t.substring(0, eq + 1) + Path.of(t.substring(eq + 1)).toAbsolutePath();
            }
            items.add(t);
        }
        return String.join(",", items);
    }

    private static String withFile(String options, String file) {
        if (options.contains("file=")) {
            throw new IllegalArgumentException("give the file either as --out or as file=, not both");
        }
        return options.isEmpty() ? "file=" + file : options + ",file=" + file;
    }
}
