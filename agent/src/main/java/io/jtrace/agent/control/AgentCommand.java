package io.jtrace.agent.control;

import io.jtrace.jmx.SessionInfo;
import io.jtrace.jmx.TracingMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A command given to the agent through {@code jcmd <pid> JVMTI.agent_load jtrace.jar <command>} (or
 * {@code -javaagent:jtrace.jar=<command>}): {@code start,<options>}, {@code stop[,name=x]},
 * {@code flush[,name=x]}, {@code status}, {@code dump[,name=x],file=path}; anything else is agent
 * options that load the agent without starting a session.
 *
 * @param text the whole option string (what {@code start} and a plain load parse as agent options)
 * @param logLevel the {@code log} option of a stop/flush/status/dump, else null: the agent's log level
 *     when this command is the one that loads the agent (fixed once the agent has logged)
 */
public record AgentCommand(Verb verb, String text, String name, String file, String logLevel) {
    public enum Verb { LOAD, START, STOP, FLUSH, STATUS, DUMP }

    private static final Set<String> LOG_LEVELS = Set.of("off", "error", "warn", "info", "debug", "trace");

    /** Parses the command; throws {@link IllegalArgumentException} naming what is wrong. */
    public static AgentCommand parse(String args) {
        String text = args == null ? "" : args.trim();
        String[] items = text.isEmpty() ? new String[0] : text.split(",");
        String first = items.length == 0 ? "" : items[0].trim();
        Verb verb = switch (first) {
            case "stop" -> Verb.STOP;
            case "flush" -> Verb.FLUSH;
            case "status" -> Verb.STATUS;
            case "dump" -> Verb.DUMP;
            default -> hasItem(items, "start") ? Verb.START : Verb.LOAD;
        };
        if (verb == Verb.START || verb == Verb.LOAD) {
            return new AgentCommand(verb, text, null, null, null);
        }
        String name = null;
        String file = null;
        String log = null;
        Set<String> given = new HashSet<>();
        for (int i = 1; i < items.length; i++) {
            String item = items[i].trim();
            if (item.isEmpty()) {
                continue;
            }
            int eq = item.indexOf('=');
            String key = eq < 0 ? item : item.substring(0, eq).trim();
            String value = eq < 0 ? "" : item.substring(eq + 1).trim();
            if (!given.add(key)) {
                throw new IllegalArgumentException("jtrace " + first + ": option '" + key + "' is given twice");
            }
            if (value.isEmpty()) {
                throw new IllegalArgumentException("jtrace " + first + ": option '" + key + "' needs a value, as in "
                        + key + "=... (from jcmd, which splits its arguments at '=', quote them: \"" + first + ","
                        + key + "=...\")");
            }
            switch (key) {
                case "name" -> {
                    if (verb == Verb.STATUS) {
                        throw unknown(first, key);
                    }
                    name = value;
                }
                case "file" -> {
                    if (verb != Verb.DUMP) {
                        throw unknown(first, key);
                    }
                    file = value;
                }
                case "log" -> {
                    log = value.toLowerCase(Locale.ROOT);
                    if (!LOG_LEVELS.contains(log)) {
                        throw new IllegalArgumentException("jtrace option 'log' must be one of " + LOG_LEVELS
                                + ", got '" + value + "'");
                    }
                }
                default -> throw unknown(first, key);
            }
        }
        if (verb == Verb.DUMP && file == null) {
            throw new IllegalArgumentException("jtrace dump needs file=<path>");
        }
        return new AgentCommand(verb, text, name, file, log);
    }

    private static boolean hasItem(String[] items, String wanted) {
        for (String item : items) {
            if (item.trim().equals(wanted)) {
                return true;
            }
        }
        return false;
    }

    private static IllegalArgumentException unknown(String verb, String key) {
        String known = switch (verb) {
            case "dump" -> "name, file, log";
            case "status" -> "log";
            default -> "name, log";
        };
        return new IllegalArgumentException("jtrace " + verb + ": unknown option '" + key + "' (known: " + known + ")");
    }

    /**
     * Runs the command on {@code control} and returns its result, one line per session or file. Throws
     * (IllegalArgumentException, IllegalStateException) with a message saying what went wrong.
     */
    public List<String> run(TracingMXBean control) {
        List<String> lines = new ArrayList<>();
        switch (verb) {
            case START -> lines.add("started " + SessionInfos.line(control.start(text)));
            case STOP -> lines.add("stopped " + SessionInfos.line(control.stop(name)));
            case FLUSH -> lines.add("flushed " + SessionInfos.line(control.flush(name)));
            case DUMP -> lines.add(SessionInfos.line(control.dump(name, file)));
            case STATUS -> {
                List<SessionInfo> sessions = control.getSessions();
                if (sessions.isEmpty()) {
                    lines.add("no tracing sessions");
                }
                for (SessionInfo s : sessions) {
                    lines.add(SessionInfos.line(s));
                }
            }
            case LOAD -> lines.add("jtrace agent loaded");
        }
        return lines;
    }
}
