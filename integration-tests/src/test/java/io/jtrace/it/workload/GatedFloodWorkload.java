package io.jtrace.it.workload;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Prints READY, waits for a line on stdin, then runs {@link FloodWorkload} with {@code args} (threads,
 * milliseconds, optionally the most milliseconds to flood until the agent counts a loss) and stays alive until killed, so a test can listen before the overload starts and look
 * at the session after it.
 */
public final class GatedFloodWorkload {
    private GatedFloodWorkload() {}

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        FloodWorkload.main(args);
        Thread.sleep(Long.MAX_VALUE);
    }
}
