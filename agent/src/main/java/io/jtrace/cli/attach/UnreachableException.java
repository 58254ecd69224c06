package io.jtrace.cli.attach;

/** The JVM cannot be reached or the agent not loaded into it: one line for the user (exit code 3). */
public final class UnreachableException extends Exception {
    public UnreachableException(String message) {
        super(message);
    }
}
