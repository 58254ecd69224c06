package io.jtrace.cli.attach;

/**
 * The values of command-line flags the commands share, checked the same way everywhere: every error is
 * an {@link IllegalArgumentException} whose message names the flag (exit code {@link ExitCodes#USAGE}).
 */
public final class CommandLineValues {
    private CommandLineValues() {}

    /** {@code args[i]}, the value of {@code flag} just before it. */
    public static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    /** A {@code --pid} value: a positive process id. */
    public static long pid(String value) {
        try {
            long pid = Long.parseLong(value);
            if (pid > 0) {
                return pid;
            }
        } catch (NumberFormatException e) {
            // Reported below, as a value that is no pid.
        }
        throw new IllegalArgumentException("--pid needs a process id, got '" + value + "'");
    }
}
