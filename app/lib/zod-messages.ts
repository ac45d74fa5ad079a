import { z } from "zod";

/**
 * One wording for a missing value everywhere zod validates (API problems and admin forms): "is required",
 * where zod's own message would read "Invalid input: expected string, received undefined". Other messages
 * are zod's or the schema's own. Imported for its effect by app/lib/validation.ts and app/admin/forms.server.ts.
 */
z.config({
  customError: (issue) => {
    if (issue.code === "invalid_type" && issue.input === undefined) return "is required";
    // A record key's own rule, with the key, where zod would only say "Invalid key in record".
    if (issue.code === "invalid_key") {
      return `key ${JSON.stringify(issue.input)}: ${issue.issues.map((inner) => inner.message).join("; ")}`;
    }
    return undefined;
  },
});
