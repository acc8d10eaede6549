// Headless UI (@headlessui/react v2): each control inside a <Field> with its <Label>, as the docs
// write them, committed from the component's own onChange. Unstyled: index.html gives sizes.
import { createRoot } from "react-dom/client";
import {
  Checkbox,
  Combobox,
  ComboboxInput,
  ComboboxOption,
  ComboboxOptions,
  Field,
  Label,
  Listbox,
  ListboxButton,
  ListboxOption,
  ListboxOptions,
  Radio,
  RadioGroup,
  Switch,
} from "@headlessui/react";
import { useState } from "react";

const COUNTRIES = ["Germany", "France", "Italy", "Spain", "Netherlands"];
const EXTRAS = ["Gift wrap", "Insurance", "Greeting card", "Express handling"];
const CUSTOMERS = ["Adventure Works", "Contoso Ltd", "Fabrikam Inc", "Northwind Health", "Northwind Traders", "Tailspin Toys"];

function ListboxField({ id, label, options, initial, multiple, disabled, placeholder }) {
  const [value, setValue] = useState(initial);
  const shown = multiple ? (value.length ? value.join(", ") : placeholder) : value || placeholder;
  return (
    <Field className="row" disabled={disabled}>
      <Label className="label">{label}</Label>
      {/* name: the docs' form use, a hidden <input> per value for the form to post */}
      <Listbox name={id} value={value} multiple={multiple} disabled={disabled}
        onChange={(v) => { setValue(v); reportCommit(id, v); }}>
        <ListboxButton className="button">{shown}</ListboxButton>
        <ListboxOptions anchor="bottom start" className="options">
          {options.map((o) => (
            <ListboxOption key={o} value={o} className="option">{o}</ListboxOption>
          ))}
        </ListboxOptions>
      </Listbox>
    </Field>
  );
}

function Customer() {
  const [selected, setSelected] = useState(null);
  const [query, setQuery] = useState("");
  const filtered = query === "" ? CUSTOMERS : CUSTOMERS.filter((c) => c.toLowerCase().includes(query.toLowerCase()));
  return (
    <Field className="row">
      <Label className="label">Customer</Label>
      <Combobox value={selected} onChange={(v) => { setSelected(v); reportCommit("customer", v); }} onClose={() => setQuery("")}>
        <ComboboxInput className="input" displayValue={(c) => c || ""} onChange={(e) => setQuery(e.target.value)} />
        <ComboboxOptions anchor="bottom start" className="options empty">
          {filtered.map((c) => (
            <ComboboxOption key={c} value={c} className="option">{c}</ComboboxOption>
          ))}
        </ComboboxOptions>
      </Combobox>
    </Field>
  );
}

function CheckboxField({ id, label, initial }) {
  const [checked, setChecked] = useState(initial);
  return (
    <Field className="row inline">
      <Checkbox className="checkbox" checked={checked} onChange={(c) => { setChecked(c); reportCommit(id, c); }}>
        <span className="tick">✓</span>
      </Checkbox>
      <Label>{label}</Label>
    </Field>
  );
}

function Notifications() {
  const [on, setOn] = useState(false);
  return (
    <Field className="row inline">
      <Label>Notifications</Label>
      <Switch className="switch" checked={on} onChange={(c) => { setOn(c); reportCommit("notifications", c); }}>
        <span className="knob" />
      </Switch>
    </Field>
  );
}

function Billing() {
  const [plan, setPlan] = useState("Yearly");
  return (
    <div className="row">
      <span className="label" id="billing-label">Billing</span>
      <RadioGroup className="radios" value={plan} aria-labelledby="billing-label"
        onChange={(v) => { setPlan(v); reportCommit("billing", v); }}>
        {["Monthly", "Yearly", "Never"].map((p) => (
          <Field key={p} className="inline" disabled={p === "Never"}>
            <Radio value={p} className="radio"><span className="dot" /></Radio>
            <Label>{p}</Label>
          </Field>
        ))}
      </RadioGroup>
    </div>
  );
}

function App() {
  return (
    <form className="form" onSubmit={(e) => e.preventDefault()}>
      <h1>Order</h1>
      <ListboxField id="country" label="Country" options={COUNTRIES} initial={null} placeholder="Choose a country" />
      <ListboxField id="extras" label="Extras" options={EXTRAS} initial={[]} multiple placeholder="Choose extras" />
      <Customer />
      <ListboxField id="carrier" label="Carrier" options={["Post", "Courier"]} initial="Post" disabled />
      <CheckboxField id="express" label="Express shipping" initial={false} />
      <CheckboxField id="newsletter" label="Newsletter" initial />
      <Notifications />
      <Billing />
    </form>
  );
}

createRoot(document.getElementById("root")).render(<App />);
