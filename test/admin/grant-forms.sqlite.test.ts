import { grantFormsSuite } from "./grant-forms.suite";

grantFormsSuite("sqlite");
