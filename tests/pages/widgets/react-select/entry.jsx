// react-select: each field labelled as its docs recommend (inputId, and a <label htmlFor> for
// that id), with a `name` (the hidden <input> a form posts), committed from its own onChange.
import { createRoot } from "react-dom/client";
import Select from "react-select";
import AsyncSelect from "react-select/async";

const asOptions = (labels) => labels.map((l) => ({ value: l, label: l }));
const COUNTRIES = asOptions(["Germany", "France", "Italy", "Spain", "Netherlands"]);
const EXTRAS = asOptions(["Gift wrap", "Insurance", "Greeting card", "Express handling"]);
const CUSTOMERS = asOptions(["Adventure Works", "Contoso Ltd", "Fabrikam Inc", "Northwind Health", "Northwind Traders", "Tailspin Toys"]);
const label = (option) => (option ? option.label : null);

// The docs' loadOptions returning a promise: the server's options for what is typed.
const loadSuppliers = (q) =>
  fetch(`/api/options?list=customers&q=${encodeURIComponent(q)}`)
    .then((r) => r.json())
    .then(asOptions);

function Row({ id, text, children }) {
  return (
    <div style={{ margin: "14px 0", width: 320 }}>
      <label htmlFor={id} style={{ display: "block", marginBottom: 4 }}>{text}</label>
      {children}
    </div>
  );
}

function App() {
  return (
    <form style={{ margin: 24, fontFamily: "sans-serif" }} onSubmit={(e) => e.preventDefault()}>
      <h1>Order</h1>
      <Row id="country-input" text="Country">
        <Select inputId="country-input" name="country" options={COUNTRIES} placeholder="Choose a country"
          onChange={(o) => reportCommit("country", label(o))} />
      </Row>
      <Row id="extras-input" text="Extras">
        <Select inputId="extras-input" name="extras" isMulti options={EXTRAS} placeholder="Choose extras"
          onChange={(os) => reportCommit("extras", os.map((o) => o.label))} />
      </Row>
      <Row id="customer-input" text="Customer">
        <Select inputId="customer-input" name="customer" options={CUSTOMERS} isClearable placeholder="Search a customer"
          onChange={(o) => reportCommit("customer", label(o))} />
      </Row>
      <Row id="supplier-input" text="Supplier">
        <AsyncSelect inputId="supplier-input" name="supplier" cacheOptions loadOptions={loadSuppliers} placeholder="Type a supplier"
          onChange={(o) => reportCommit("supplier", label(o))} />
      </Row>
      <Row id="carrier-input" text="Carrier">
        <Select inputId="carrier-input" name="carrier" isDisabled options={asOptions(["Post", "Courier"])}
          defaultValue={asOptions(["Post"])[0]} onChange={(o) => reportCommit("carrier", label(o))} />
      </Row>
    </form>
  );
}

createRoot(document.getElementById("root")).render(<App />);
