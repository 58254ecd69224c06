package io.jtrace.cli.attach;

/** Exit codes of the commands that control a running JVM, for scripts. */
public final class ExitCodes {
    /** Done. */
    public static final int OK = 0;
    /** The agent refused or failed the command (no such session, bad option, file not writable). */
    public static final int COMMAND_FAILED = 1;
    /** The command line itself is wrong. */
    public static final int USAGE = 2;
    /** The JVM could not be reached: no such process, not a JVM, attach refused or not permitted. */
    public static final int NOT_REACHABLE = 3;

    private ExitCodes() {}
}
