package io.jtrace.cli.attach;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.PrintStream;

/**
 * {@code jtrace list}: the JVMs of this user on this machine, and whether jtrace is loaded in each
 * (read from the system property the agent sets, {@code io.jtrace.agent}, without loading anything).
 */
public final class ListCommand {
    private ListCommand() {}

    public static int run(PrintStream out, PrintStream err) {
        long self = ProcessHandle.current().pid();
        out.printf("%-8s %-24s %s%n", "PID", "JTRACE", "MAIN");
        for (VirtualMachineDescriptor d : VirtualMachine.list()) {
            if (d.id().equals(String.valueOf(self))) {
                continue;
            }
            out.printf("%-8s %-24s %s%n", d.id(), jtraceState(d), d.displayName().isEmpty() ? "?" : d.displayName());
        }
        return ExitCodes.OK;
    }

    private static String jtraceState(VirtualMachineDescriptor d) {
        try {
            VirtualMachine vm = VirtualMachine.attach(d);
            try {
                String version = TargetJvm.loadedVersion(vm);
                return version != null ? "loaded " + version : "not loaded";
            } finally {
                vm.detach();
            }
        } catch (Exception e) {
            return "unreachable";
        }
    }
}
