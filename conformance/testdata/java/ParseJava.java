// ParseJava parses Java source files with the JDK's own parser (javac's
// JavacTask.parse, the syntax only: imports are not resolved, so the
// libraries need not be present) and reports each syntax error as
// "FILE:LINE:COLUMN: error: MESSAGE". For each file it also prints the
// method calls it makes, "FILE: call NAME(ARGUMENTS)", for the test to
// read the values back. Run it as: java ParseJava.java FILE...
// It exits 1 when a file has a syntax error.

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class ParseJava {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager files = compiler.getStandardFileManager(diags, Locale.ROOT, null);
        JavacTask task = (JavacTask) compiler.getTask(null, files, diags, List.of("-proc:none"), null,
            files.getJavaFileObjects(args));
        int parsed = 0;
        for (CompilationUnitTree unit : task.parse()) {
            parsed++;
            String name = unit.getSourceFile().getName();
            new TreeScanner<Void, Void>() {
                @Override
                public Void visitMethodInvocation(MethodInvocationTree call, Void unused) {
                    String args = call.getArguments().stream().map(Object::toString).collect(Collectors.joining(", "));
                    String method = call.getMethodSelect().toString();
                    method = method.substring(method.lastIndexOf('.') + 1);
                    System.out.println(name + ": call " + method + "(" + args + ")");
                    return super.visitMethodInvocation(call, unused);
                }
            }.scan(unit, null);
        }
        int errors = 0;
        for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                errors++;
                String source = d.getSource() == null ? "?" : d.getSource().getName();
                System.out.println(source + ":" + d.getLineNumber() + ":" + d.getColumnNumber() + ": error: " + d.getMessage(Locale.ROOT));
            }
        }
        System.out.println("parsed " + parsed + " files, " + errors + " errors");
        System.exit(errors == 0 ? 0 : 1);
    }
}
