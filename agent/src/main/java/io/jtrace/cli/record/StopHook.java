package io.jtrace.cli.record;

/**
 * Where a Ctrl-C reaches a recording: {@link #install} registers what stops it, {@link #remove} takes it
 * away once the recording has ended on its own. The command line uses a JVM shutdown hook; tests call
 * the stop directly.
 */
public interface StopHook {
    void install(Runnable stop);

    void remove();

    /** A JVM shutdown hook: SIGINT / SIGTERM run {@code stop} before the JVM exits. */
    static StopHook onShutdown() {
        return new StopHook() {
            private Thread hook;

            @Override
            public void install(Runnable stop) {
                hook = new Thread(stop, "jtrace-record-stop");
                Runtime.getRuntime().addShutdownHook(hook);
            }

            @Override
            public void remove() {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // The JVM is exiting: the hook runs, finds the recording ended and returns at once.
                }
            }
        };
    }
}
