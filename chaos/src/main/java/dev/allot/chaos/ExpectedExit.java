package dev.allot.chaos;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a job's process ends, read from its command line when the command is one of the plain forms the chaos
 * stream submits: {@code sleep N} and {@code sh -c 'sleep N'} exit 0, {@code sh -c 'sleep N; exit K'} exits K.
 * Any other command: unknown (null), and the verdict is judged from the agents' reports alone.
 */
final class ExpectedExit {

    private static final Pattern NUMBER = Pattern.compile("\\d+(\\.\\d+)?");
    private static final Pattern SCRIPT = Pattern.compile("sleep \\d+(\\.\\d+)?(\\s*;\\s*exit (\\d+))?");

    private ExpectedExit() {
    }

    static Integer of(List<String> command) {
        if (command.size() == 2 && command.get(0).equals("sleep") && NUMBER.matcher(command.get(1)).matches()) {
            return 0;
        }
        if (command.size() == 3 && command.get(0).equals("sh") && command.get(1).equals("-c")) {
            Matcher m = SCRIPT.matcher(command.get(2).strip());
            if (m.matches()) {
                return m.group(3) == null ? 0 : Integer.valueOf(m.group(3));
            }
        }
        return null;
    }
}
