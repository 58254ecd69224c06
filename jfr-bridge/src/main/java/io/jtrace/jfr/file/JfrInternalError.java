package io.jtrace.jfr.file;

/**
 * jtrace's own mapping of a JFR event failed: a bug of jtrace, not damage in the recording (the JDK's
 * parser read the event whole). The message names the recording, the event's type, its position in the
 * file and its time; the stack trace has been logged.
 */
public final class JfrInternalError extends Exception {
    public JfrInternalError(String message, Throwable cause) {
        super(message, cause);
    }
}
