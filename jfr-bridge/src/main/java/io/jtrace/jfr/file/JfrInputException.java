package io.jtrace.jfr.file;

/** A .jfr file (or trace to merge into) that cannot be converted as asked; the message names the file and what is wrong. */
public final class JfrInputException extends Exception {
    public JfrInputException(String message) {
        super(message);
    }

    public JfrInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
